#!/usr/bin/env node
// The `postline` command: start [--roles api,smtp,worker] | migrate | accounts create NAME |
// users create --account NAME_OR_ID EMAIL | queue … | secrets rotate.
import { createAccount } from './accounts/accounts.js';
import { ALL_ROLES, ConfigError, loadConfig, unknownVariables, type Role } from './config.js';
import { connectDatabase } from './db/connect.js';
import { createLogger } from './logger.js';
import { ProviderTable } from './providers/providers.js';
import { QUEUE_USAGE, QueueCommandError, runQueueCommand } from './queue/cli.js';
import { installSecretBox } from './secrets/keyring.js';
import { loadSecretBox } from './secrets/secret-key.js';
import { rotateStoredSecrets } from './secrets/stored-secrets.js';
import type { Postline } from './server.js';
import { createUser, setPasswordLink, UserCommandError } from './users/users.js';

const USAGE = `usage:
  postline start [--roles api,smtp,worker]   run the service (all roles by default)
  postline migrate                           apply database migrations and exit
  postline accounts create NAME              create an account; prints its full-access API key
  postline users create --account NAME_OR_ID EMAIL
                                             create a dashboard user; prints its one-time set-password link (1 hour)
  postline secrets rotate                    re-wrap every stored secret under POSTLINE_SECRET_KEY (the old key in
                                             POSTLINE_SECRET_KEY_PREVIOUS); resumable, while nodes run (docs/SECURITY.md)
${QUEUE_USAGE}`;

function parseRoles(args: string[]): Role[] {
  const i = args.indexOf('--roles');
  const raw = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--roles='))?.slice('--roles='.length);
  if (raw === undefined) return ALL_ROLES;
  const roles = raw
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const role of roles) {
    if (!ALL_ROLES.includes(role as Role)) throw new ConfigError(`unknown role "${role}" (roles: ${ALL_ROLES.join(', ')})`);
  }
  return roles as Role[];
}

async function main(argv: string[]): Promise<void> {
  const [command = 'start', ...args] = argv;
  const config = loadConfig();
  const logger = createLogger(config.logLevel, config.logFormat);
  for (const variable of unknownVariables()) logger.warn({ variable }, `${variable} is not a Postline setting (a typo?): ignored`);
  switch (command) {
    case 'start': {
      // Signals are handled from the first moment: one that arrives while the roles are still
      // starting (the API may already listen while the worker thread starts) stops Postline
      // as soon as it is up, instead of killing it half-started.
      let postline: Postline | undefined;
      let stopping = false;
      const stop = (running: Postline) =>
        running.stop().then(
          () => process.exit(0),
          (err) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      const shutdown = (signal: string) => {
        if (stopping) {
          // A second Ctrl-C: stop waiting. An embedded server left running is adopted next start.
          logger.warn(`${signal} again: exiting without waiting for shutdown to finish`);
          process.exit(130);
        }
        stopping = true;
        logger.info(`${signal}: shutting down (at most ${config.shutdownTimeoutMs / 1000} s)`);
        setTimeout(() => {
          logger.error(`shutdown did not finish within POSTLINE_SHUTDOWN_TIMEOUT; exiting with work still running (its leases expire)`);
          process.exit(1);
        }, config.shutdownTimeoutMs).unref();
        if (postline) void stop(postline);
      };
      process.on('SIGINT', () => shutdown('SIGINT'));
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      // Loaded here, not at the top: the other commands need none of the server's modules, and each
      // of their runs would load them all.
      const { startPostline } = await import('./server.js');
      postline = await startPostline(config, { roles: parseRoles(args), logger });
      if (stopping) void stop(postline);
      return;
    }
    case 'migrate': {
      const database = await connectDatabase(config, (msg) => logger.info(msg));
      await database.close();
      logger.info('migrations are up to date');
      return;
    }
    case 'accounts': {
      if (args[0] !== 'create' || !args[1]) throw new ConfigError(USAGE);
      const database = await connectDatabase(config, (msg) => logger.debug(msg));
      try {
        const created = await createAccount(database.db, args.slice(1).join(' '));
        process.stdout.write(`account ${created.accountId}\napi key ${created.token}\n`);
      } finally {
        await database.close();
      }
      return;
    }
    case 'users': {
      const at = args.indexOf('--account');
      const account = at >= 0 ? args[at + 1] : undefined;
      const rest = at >= 0 ? [...args.slice(1, at), ...args.slice(at + 2)] : args.slice(1);
      if (args[0] !== 'create' || !account || rest.length !== 1) throw new ConfigError(USAGE);
      const database = await connectDatabase(config, (msg) => logger.debug(msg));
      try {
        const { token } = await createUser(database.db, account, rest[0]!);
        process.stdout.write(`set the password within an hour: ${setPasswordLink(config.publicUrl, token)}\n`);
      } catch (err) {
        if (err instanceof UserCommandError) throw new ConfigError(err.message);
        throw err;
      } finally {
        await database.close();
      }
      return;
    }
    case 'queue': {
      const database = await connectDatabase(config, (msg) => logger.debug(msg));
      try {
        await runQueueCommand(database.db, new ProviderTable(config.providers), args, (text) => process.stdout.write(text));
      } catch (err) {
        if (err instanceof QueueCommandError) throw new ConfigError(`${err.message}\n${USAGE}`);
        throw err;
      } finally {
        await database.close();
      }
      return;
    }
    case 'secrets': {
      if (args[0] !== 'rotate' || args.length !== 1) throw new ConfigError(USAGE);
      const box = loadSecretBox(config);
      installSecretBox(box);
      const database = await connectDatabase(config, (msg) => logger.debug(msg));
      try {
        const { rewrapped, retired, left } = await rotateStoredSecrets(database.db, box);
        const outcome = left
          ? `${left} secret(s) were written under another key meanwhile: run it again`
          : retired.length
            ? `retired key(s) ${retired.join(', ')}: POSTLINE_SECRET_KEY_PREVIOUS may go`
            : 'every secret was under it already';
        process.stdout.write(`${rewrapped} secret(s) re-wrapped under key ${box.current.id}; ${outcome}\n`);
      } finally {
        await database.close();
      }
      return;
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new ConfigError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`postline: ${err instanceof ConfigError ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
