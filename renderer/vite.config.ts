import react from '@vitejs/plugin-react';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The renderer build shared by web mode (`envace serve`) and electron-vite. */
export const rendererConfig = {
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: path.resolve(here, '../out/renderer'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
};

export default defineConfig(rendererConfig);
