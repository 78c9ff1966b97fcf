// Pull models from the Hugging Face Hub (or any server with its API, HF_ENDPOINT) into the data home's cache.
export { searchModels } from './api';
export type { RepoFile, SearchResult } from './api';
export { cachedRefs, hubCacheDir } from './cache';
export { HubError, parseRepoRef } from './errors';
export type { HubErrorCode } from './errors';
export { DEFAULT_ENDPOINT, NetworkFailure, hubEndpoint, unreachableError } from './http';
export type { HubConnection } from './http';
export { pullModel } from './pull';
export type { PullOptions, PullProgress, PullResult } from './pull';
export { defaultModelName, pullAndImport } from './pull-import';
export type { PullImportOptions } from './pull-import';
