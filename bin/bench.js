#!/usr/bin/env node
// `npm run bench`: runs the TypeScript benchmark through tsx's loader, like bin/gateway.js does for
// the CLI. tsx only transpiles at load time, so nothing here slows the measured code down.
import { register } from 'tsx/esm/api';

register();
await import('../bench/run.ts');
