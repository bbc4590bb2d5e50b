// The web UI build (web/dist, embedded into the keystorm binary) and the unit tests.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const api = process.env.KEYSTORM_API ?? "http://127.0.0.1:7878";

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1200 },
  server: {
    port: 5173,
    strictPort: true,
    proxy: { "/api": { target: api, changeOrigin: false }, "/metrics": api },
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
