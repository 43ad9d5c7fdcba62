import { defineConfig } from "vite";

// The UI is plain TypeScript; Vite only bundles it for the Tauri window.
export default defineConfig({
  root: __dirname,
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  test: { environment: "happy-dom", include: ["src/**/*.test.ts"] },
});
