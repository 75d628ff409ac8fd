// The dashboard's build: web/src → web/dist, served by the API process at /dashboard
// (src/http/dashboard.ts). Every asset is bundled; nothing is fetched from elsewhere.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/dashboard/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    rollupOptions: {
      // TanStack Query marks its hooks "use client" for React Server Components; a browser-only
      // bundle has nothing to preserve.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
