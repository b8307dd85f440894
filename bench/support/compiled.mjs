// Benches measure the compiled code that users run (dist/, built by `npm run bench` first), not the
// TypeScript sources through tsx: tsx compiles with esbuild's keepNames, which wraps every function
// created at run time in a name-setting call that compiled code does not pay. The bench files stay
// TypeScript (loaded by tsx, registered before this module); their imports of src/**/*.ts resolve to
// the matching dist/**/*.js, so the code under measurement is the compiled product, loaded once.
import { register } from 'node:module';

register('./compiled-hooks.mjs', import.meta.url);
