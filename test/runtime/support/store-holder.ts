/** Child process of deployment-store.test.ts: opens the store at STORE, prints "held", holds it until killed. */
import { openDeploymentStore } from '../../../src/runtime/store/deployment-store.js';

const store = openDeploymentStore({ path: process.env['STORE'] ?? '', deployment: 'holder', wallet: 'WalletHolder1111111111111111111111111111111' });
process.stdout.write(`held ${process.pid}\n`);
setInterval(() => store.path, 60_000);
