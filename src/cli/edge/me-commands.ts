/**
 * `svc edge me …`: what any logged-in identity may do about itself, administrator or not, over the Client API (the
 * API an SDK uses): the services it may dial or bind, its sessions, its API session, and its TOTP (enroll, verify,
 * remove). A non-admin's management commands are refused by the controller; these are the commands it has instead.
 */
import { Argument, type Command } from 'commander';
import type { Output } from '../output.js';
import { refusedError } from '../cli-error.js';
import { addListOptions, fetchList, listArgsOf } from './list-output.js';
import { clientApiClient, type ManagementClient } from './management-client.js';
import type { Run } from './resource-tree.js';
import { tableLines } from './table.js';

type Item = Record<string, unknown>;

/** A service as a row: its name, how the identity may use it, and whether it requires end-to-end encryption. */
const serviceRow = (s: Item): Item => ({ name: s.name, permissions: s.permissions, encryptionRequired: s.encryptionRequired, id: s.id });
const sessionRow = (s: Item): Item => ({ id: s.id, service: (s.service as Item | undefined)?.name ?? s.serviceId, type: s.type, createdAt: s.createdAt });

async function printItems(out: Output, items: Item[], json: boolean, total: number | undefined, row: (item: Item) => Item): Promise<number> {
  if (json) {
    out.print(JSON.stringify(items, null, 2));
    return 0;
  }
  const rows = items.map(row);
  if (rows.length > 0) for (const line of tableLines(Object.keys(rows[0] as Item), rows)) out.print(line);
  out.print(items.length === 0 ? `results: none of ${total ?? 0}` : `results: 1-${items.length} of ${total ?? items.length}`);
  return 0;
}

/** The TOTP enrollment, or undefined when the identity has none. */
async function mfaOf(client: ManagementClient): Promise<Item | undefined> {
  try {
    return (await client.call('GET', '/current-identity/mfa')).body?.data as Item;
  } catch (error) {
    if (/HTTP 404/.test((error as Error).message)) return undefined;
    throw error;
  }
}

export function addMeCommands(edge: Command, out: Output, run: Run): void {
  const me = edge
    .command('me')
    .description('What the logged-in identity may do about itself, admin or not, over the Client API: its services, sessions, API session and TOTP');
  addListOptions(
    me.command('services').description('Lists the services you may dial or bind, with your permissions').argument('[filter]', 'for example name contains "web"'),
    ['name', 'permissions', 'encryptionRequired', 'id'],
  ).action((filter: string | undefined, options: Record<string, any>) =>
    run(async () => {
      const args = listArgsOf(filter, options);
      const page = await fetchList(clientApiClient(), '/services', args, 'services');
      return printItems(out, page.items, args.json, page.pagination?.totalCount, serviceRow);
    }),
  );
  addListOptions(me.command('sessions').description('Lists your sessions (one per service and dial or bind)').argument('[filter]', 'a filter'), ['id', 'service', 'type', 'createdAt']).action(
    (filter: string | undefined, options: Record<string, any>) =>
      run(async () => {
        const args = listArgsOf(filter, options);
        const page = await fetchList(clientApiClient(), '/sessions', args, 'sessions');
        return printItems(out, page.items, args.json, page.pagination?.totalCount, sessionRow);
      }),
  );
  me.command('api-session')
    .description('Shows your current API session: how you logged in, from where, and when it was last used')
    .option('-j, --json', 'print it as JSON')
    .action((options: { json?: boolean }) =>
      run(async () => {
        const session = (await clientApiClient().call('GET', '/current-api-session')).body?.data as Item;
        if (options.json) out.print(JSON.stringify(session, null, 2));
        else for (const key of ['id', 'authMethod', 'ipAddress', 'createdAt', 'lastActivityAt', 'isMfaComplete', 'isMfaRequired']) if (key in session) out.print(`${key}: ${String(session[key])}`);
        return 0;
      }),
    );

  const mfa = me.command('mfa').description('Your TOTP second factor: show it, enroll, verify, remove');
  mfa
    .command('show', { isDefault: true })
    .description('Says whether you have TOTP and whether it is verified')
    .option('-j, --json', 'print it as JSON')
    .action((options: { json?: boolean }) =>
      run(async () => {
        const enrollment = await mfaOf(clientApiClient());
        if (options.json) out.print(JSON.stringify(enrollment ?? null, null, 2));
        else out.print(enrollment === undefined ? 'no TOTP enrolled: svc edge me mfa enroll' : `TOTP ${enrollment.isVerified ? 'verified' : 'enrolled, not verified yet: svc edge me mfa verify CODE'}`);
        return 0;
      }),
    );
  mfa
    .command('enroll')
    .description('Starts TOTP: prints the otpauth:// URL (and its secret) for your authenticator app, and the recovery codes')
    .action(() =>
      run(async () => {
        const client = clientApiClient();
        if ((await mfaOf(client)) !== undefined) throw refusedError('TOTP is already enrolled: remove it first with svc edge me mfa remove CODE');
        await client.call('POST', '/current-identity/mfa', { body: {} });
        const enrollment = (await mfaOf(client)) ?? {};
        const url = String(enrollment.provisioningUrl ?? '');
        out.print(`otpauth URL: ${url}`);
        out.print(`secret (for manual entry): ${new URL(url).searchParams.get('secret') ?? '?'}`);
        out.print(`recovery codes (keep them; each works once): ${((enrollment.recoveryCodes as string[] | undefined) ?? []).join(' ')}`);
        out.print('then: svc edge me mfa verify CODE (a code from the app)');
        return 0;
      }),
    );
  mfa
    .command('verify')
    .description('Completes TOTP enrollment with a code from your authenticator app')
    .addArgument(new Argument('<code>', 'the 6-digit code'))
    .action((code: string) =>
      run(async () => {
        await clientApiClient().call('POST', '/current-identity/mfa/verify', { body: { code } });
        out.print('TOTP verified: later logins ask for a code');
        return 0;
      }),
    );
  mfa
    .command('remove')
    .description('Removes TOTP; a verified one needs a current code or a recovery code')
    .addArgument(new Argument('[code]', 'a TOTP or recovery code (none for an enrollment never verified)'))
    .action((code: string | undefined) =>
      run(async () => {
        await clientApiClient().call('DELETE', '/current-identity/mfa', { headers: { 'mfa-validation-code': code ?? '' } });
        out.print('TOTP removed');
        return 0;
      }),
    );
}
