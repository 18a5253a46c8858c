/** Command-line flags of `pnpm bench` (bench/cpu.mjs). */

const USAGE = `usage: pnpm bench [--models a,b,...] [--threads 1,2] [--quick] [--write-docs] [--no-rss] [--out FILE]
       pnpm bench --from bench/results/cpu-<date>T<hh-mm>.json [--write-docs]

  --models      model ids or families (default: all); see the list below
  --threads     intra-op thread counts to compare at (default: 1,2)
  --quick       fewer warm-up and timed runs (a smoke run, not numbers to quote)
  --write-docs  replace the results section of docs/BENCHMARKS.md
  --no-rss      skip the peak-RSS child processes
  --out FILE    results JSON path (default: bench/results/cpu-<date>T<hh-mm>[-cap-<isa>][-quick].json, the start in UTC)
  --from FILE   measure nothing: print (and with --write-docs, publish) a saved results file`;

/**
 * @param {string[]} argv process.argv.slice(2)
 * @param {string[]} knownModels ids and families accepted by --models
 */
export function parseArgs(argv, knownModels) {
  const opts = { models: undefined, threads: [1, 2], quick: false, writeDocs: false, rss: true, out: undefined, from: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // Accept both `--models a,b` and `--models=a,b`.
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v.startsWith('--')) fail(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--models':
        opts.models = value().split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
        for (const m of opts.models) if (!knownModels.includes(m)) fail(`unknown model '${m}'; known: ${knownModels.join(', ')}`);
        break;
      case '--threads':
        opts.threads = value().split(',').map((s) => Number(s.trim()));
        for (const t of opts.threads) if (!Number.isInteger(t) || t < 1 || t > 256) fail(`--threads takes positive integers, got '${t}'`);
        break;
      case '--quick':
        opts.quick = true;
        break;
      case '--write-docs':
        opts.writeDocs = true;
        break;
      case '--no-rss':
        opts.rss = false;
        break;
      case '--out':
        opts.out = value();
        break;
      case '--from':
        opts.from = value();
        break;
      case '--help':
      case '-h':
        console.log(USAGE + `\n\nmodels: ${knownModels.join(', ')}`);
        process.exit(0);
        break;
      default:
        fail(`unknown argument '${arg}'`);
    }
  }
  return opts;
}

function fail(message) {
  console.error(`bench: ${message}\n\n${USAGE}`);
  process.exit(2);
}
