import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
  test: {
    environment: 'jsdom',
    globals: true,
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // One window and one module graph per worker, not one per file: a fresh
    // jsdom and module graph for each file took four times the CPU of the
    // whole run. src/test/setup.ts puts back what a test changes.
    isolate: false,
    testTimeout: 20000,
  },
})
