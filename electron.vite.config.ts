import { defineConfig } from 'electron-vite';
import path from 'node:path';
import { rendererConfig } from './renderer/vite.config';

// Native modules stay outside the bundle (electron-builder unpacks them from the asar); the
// llama.cpp bindings are a dev-only benchmark dependency, loaded on demand if present.
const external = ['better-sqlite3', 'onnxruntime-node', 'electron', 'node-llama-cpp', /^@node-llama-cpp\//];

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        external,
        input: {
          index: path.resolve('electron/main/index.ts'),
          // The engine runs in a utilityProcess; ORT runs in the engine's compute worker.
          engine: path.resolve('electron/engine/process-entry.ts'),
          'compute-worker': path.resolve('electron/engine/compute/worker.ts'),
        },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        external: ['electron'],
        input: { index: path.resolve('electron/preload/index.ts') },
        // Sandboxed preloads must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    ...rendererConfig,
    build: { ...rendererConfig.build, rollupOptions: { input: path.resolve('renderer/index.html') } },
  },
});
