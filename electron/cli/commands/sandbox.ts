import { DEPLOYMENTS, loadUsersFile, parseFaultSpec, startSandbox, type SandboxOptions } from '../../../sandbox/index.js';
import { intFlag, parseArgs, UsageError } from '../args.js';

export const SANDBOX_HELP = `docsync sandbox [--port N] [--data DIR] [--faults SPEC] [options]
  Runs the local sandbox service on 127.0.0.1 until SIGINT/SIGTERM.
  --port N               port to listen on; 0 (default) picks a free one
  --data DIR             keep state in DIR across restarts (default: a fresh temporary folder)
  --faults SPEC          e.g. 5xx=0.1,429=0.05,reset=0.02,latency=50,retryafter=1,seed=7
  --users FILE           JSON {org, users:[{token, username, email, orgAdmin, auditLogs, serviceAccount, workspaces}]}
  --part-size BYTES      multipart part size (default 10485760)
  --page-delay-ms MS     processing time per page (default 200)
  --job-delay-ms MS      time a job spends PENDING and RUNNING (default 250)
  --results-page-size N  files per results page (default 20)
  --context-header NAME  name of the context header (default Svc-Context)
  --namespace S          namespace segment of the deployment (default svc): /v2/S/secrets, and
                         runtime_config.S.pdf.passwords in run settings (--secrets-namespace: same)
  --ocr-workers N        most pages read by OCR at once (images, scanned PDFs); default: one per core
  --tls                  HTTPS, with a CA of its own and a certificate for 127.0.0.1 and localhost
                         (kept in DATA/tls/; prints the CA file for clients: docsync login --ca-file)
  --tls-cert FILE        HTTPS with this certificate (PEM; with --tls-key FILE, its key)
  --hold-runs            accept runs but process none until POST /sandbox/runs/hold {"hold": false}
                         (benchmarks: the uploads measured do not share the cores with processing)`;

export async function sandboxCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, {
    booleans: ['hold-runs', 'tls'],
    values: ['tls-cert', 'tls-key', 'port', 'data', 'faults', 'users', 'part-size', 'page-delay-ms', 'job-delay-ms', 'results-page-size', 'context-header', 'namespace', 'secrets-namespace', 'part-order-grace-ms', 'ocr-workers'],
  });
  if (args.positional.length) throw new UsageError(`unexpected argument "${args.positional[0]}"`);
  const opts: Partial<SandboxOptions> = {};
  const set = <K extends keyof SandboxOptions>(k: K, v: SandboxOptions[K] | undefined): void => {
    if (v !== undefined) opts[k] = v;
  };
  const port = intFlag(args, 'port');
  if (port !== undefined && port > 65535) throw new UsageError('--port must be at most 65535');
  set('port', port);
  set('dataDir', args.flags.get('data'));
  const faults = args.flags.get('faults');
  if (faults !== undefined) {
    try {
      opts.faults = parseFaultSpec(faults);
    } catch (err) {
      throw new UsageError(`--faults: ${(err as Error).message}`);
    }
  }
  const users = args.flags.get('users');
  if (users !== undefined) {
    try {
      opts.users = loadUsersFile(users);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  set('partSize', intFlag(args, 'part-size', 1));
  set('pageDelayMs', intFlag(args, 'page-delay-ms'));
  set('jobDelayMs', intFlag(args, 'job-delay-ms'));
  set('resultsPageSize', intFlag(args, 'results-page-size', 1));
  set('partOrderGraceMs', intFlag(args, 'part-order-grace-ms'));
  set('contextHeader', args.flags.get('context-header'));
  set('namespace', args.flags.get('namespace') ?? args.flags.get('secrets-namespace'));
  set('ocrWorkers', intFlag(args, 'ocr-workers', 1));
  if (args.booleans.has('hold-runs')) opts.holdRuns = true;
  const certFile = args.flags.get('tls-cert');
  const keyFile = args.flags.get('tls-key');
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (certFile !== undefined && keyFile !== undefined) {
    if (args.booleans.has('tls')) throw new UsageError('give either --tls or --tls-cert and --tls-key');
    opts.tls = { certFile, keyFile };
  } else if (args.booleans.has('tls')) opts.tls = 'self';

  let sandbox;
  try {
    sandbox = await startSandbox(opts);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`port ${port} is already in use`);
    if (e.code === 'EACCES') throw new UsageError(`not allowed to listen on port ${port}`);
    throw err;
  }
  console.log(`sandbox listening on ${sandbox.url}`);
  console.log(`data: ${sandbox.dataDir}`);
  if (sandbox.caFile) console.log(`ca: ${sandbox.caFile} (trust it: docsync login --url ${sandbox.url} --ca-file ${sandbox.caFile}, or DOCSYNC_CA_FILE)`);
  console.log('tokens: admin-token (org admin), member-token (member of "team"), service-token (service account)');
  console.log(`deployments: ${DEPLOYMENTS.map((d) => d.id).join(', ')}`);
  if (sandbox.faults) console.log(`faults: ${faults}`);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await sandbox.close();
  console.log('sandbox stopped');
}
