/** A fuzz worker process on the CPU EP (with its oneDNN addon when it loads): started by fuzz.ts through runFuzz. */
import { runFuzzWorker } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';

// One provider for every case: sessions do not own it, so it is never disposed between cases.
const cpu = new CpuExecutionProvider();
await runFuzzWorker(() => [cpu]);
