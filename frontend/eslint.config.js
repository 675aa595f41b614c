// ESLint for the frontend: the recommended JavaScript and TypeScript rules and
// the React hooks rules; formatting is prettier's (npm run format:check).
import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'wailsjs/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The two classic hooks rules; the React Compiler rules of the plugin's
    // recommended set are left out until the hooks are written for them.
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['e2e/**', 'vite.config.ts', 'eslint.config.js'],
    languageOptions: { globals: { ...globals.node } },
  },
)
