/**
 * The one place @peculiar/x509 is loaded. The library's ASN.1 schema decorators need the
 * reflect-metadata polyfill before the library's own modules are evaluated, and it must be told which
 * WebCrypto implementation to use; doing both here once means every other module can simply import
 * `x509` from this file and never worry about load order.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** The WebCrypto type as the library declares it (the DOM one, which TypeScript does not know here). */
type LibraryCrypto = ReturnType<typeof x509.cryptoProvider.get>;

// Node's webcrypto has the same shape as the DOM `Crypto` the library declares, but a distinct type.
x509.cryptoProvider.set(webcrypto as unknown as LibraryCrypto);

export { x509, webcrypto };

/** A WebCrypto key (Node's type; the library's declarations expect the same object). */
export type CryptoKey = webcrypto.CryptoKey;
