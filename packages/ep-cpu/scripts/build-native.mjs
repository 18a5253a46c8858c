// Builds build/Release/switchyard_cpu.node (the oneDNN addon) from native/ with the shared build script
// of @switchyard/native-toolkit (flags: --force, --clean, --no-install; see its scripts/build-addon.mjs).
//
//   --sanitize   the AddressSanitizer + UndefinedBehaviorSanitizer build (-DSWITCHYARD_SANITIZE=ON) into
//                build-sanitize/, never over the production addon; load it with SWITCHYARD_CPU_ADDON and the
//                sanitizer runtime preloaded (scripts/sanitize.sh in the repository does both)
import { buildAddon } from '@switchyard/native-toolkit/build-addon';

const argv = process.argv.slice(2);
const sanitize = argv.includes('--sanitize');
await buildAddon(
  {
    from: import.meta.url,
    addon: 'switchyard_cpu.node',
    sourceDir: 'native',
    inputs: ['native'],
    ...(sanitize ? { buildDir: 'build-sanitize', cmakeOptions: { SWITCHYARD_SANITIZE: 'ON' }, describe: '(ASan + UBSan)' } : {}),
    hint: 'apt-get install libdnnl-dev cmake g++ | npm install --no-save cmake-js node-addon-api (build-time only; pnpm install in the Switchyard repository)',
  },
  argv.filter((a) => a !== '--sanitize'),
);
