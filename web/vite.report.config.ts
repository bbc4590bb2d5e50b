// The offline report: one self-contained HTML file (scripts and styles inlined) that
// the server fills with a run's data.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  plugins: [react(), viteSingleFile()],
  build: {
    outDir: "dist-report",
    emptyOutDir: true,
    rollupOptions: { input: "report.html" },
    chunkSizeWarningLimit: 2000,
  },
});
