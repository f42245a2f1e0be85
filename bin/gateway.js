#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's loader, so `npx gateway serve` works right after
// `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli.ts');
