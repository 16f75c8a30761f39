/**
 * Every string of the browser login pages, in one catalogue per language (issue 45: ready for translation). Only
 * English exists; `stringsFor` picks from Accept-Language and falls back to it. Refusals of a password login share
 * one sentence, so a page never tells whether an account exists or is locked.
 */
export const en = {
  lang: 'en',
  product: 'svc',
  signInTitle: 'Sign in',
  signInLead: 'Sign in to the svc network with your identity.',
  username: 'Username',
  password: 'Password',
  signIn: 'Sign in',
  or: 'or',
  certificate: 'Sign in with this device’s certificate',
  certificateHint: 'Uses the client certificate your browser presented to this page.',
  externalProvider: (name: string) => `Continue with ${name}`,
  continueTitle: 'Signed in',
  continueLink: 'Continue to the application',
  idpNotOffered: 'That identity provider is not offered for signing in here. Choose another way to sign in.',
  idpUnavailable: 'The identity provider cannot be reached right now. Try again in a moment, or sign in another way.',
  idpRefused: (detail: string) => `The identity provider did not sign you in (${detail}). Try again, or sign in another way.`,
  idpState: 'This sign-in with the identity provider is unknown to this browser, already used or expired. Start again from the application.',
  idpToken: 'The answer of the identity provider could not be verified. Ask your administrator to check the provider’s settings.',
  idpIdentity: 'Your account at the identity provider may not sign in to this network. If you think it should, ask your administrator.',
  refused: 'Sign-in failed. Check the username and password and try again; if it keeps failing, ask your administrator.',
  tooMany: 'Too many attempts. Wait a moment and try again.',
  expired: 'This sign-in has expired or is no longer valid. Go back to the application and start again.',
  totpTitle: 'Enter your authentication code',
  totpLead: 'Open your authenticator app and enter the 6-digit code for svc, or one of your recovery codes.',
  code: 'Authentication code or recovery code',
  codeHint: '6 digits from the app, or a recovery code (letters and digits).',
  continue: 'Continue',
  noApp: 'No authenticator app set up yet?',
  setUp: 'Set up an authenticator app',
  enrollTitle: 'Set up your authenticator app',
  enrollStep1: '1. Scan this QR code with your authenticator app, or type the secret into it.',
  qrAlt: 'QR code holding the secret for your authenticator app',
  secret: 'Secret for manual entry',
  enrollStep2: '2. Keep these recovery codes somewhere safe. Each one signs you in once if you lose your phone.',
  recoveryCodes: 'Recovery codes',
  download: 'Download the codes (text file)',
  saved: 'I have saved these recovery codes',
  savedRequired: 'Confirm that you saved the recovery codes first: they only count once you do.',
  enrollStep3: '3. Enter the 6-digit code your app now shows.',
  confirm: 'Confirm and continue',
  cancel: 'Cancel setup',
  wrongCode: 'That code was not right. Enter the code your app shows now.',
  footer: 'svc · zero-trust overlay network',
};

export type PageStrings = typeof en;

const CATALOGUES: Record<string, PageStrings> = { en };

/** The catalogue for the first language of `accept` that has one, else English. */
export function stringsFor(accept: string | undefined): PageStrings {
  for (const part of (accept ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase().split('-')[0]!;
    const found = CATALOGUES[tag];
    if (found) return found;
  }
  return en;
}
