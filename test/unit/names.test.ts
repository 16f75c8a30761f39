/**
 * The pure name and username rules (src/policy/names.ts): which usernames collide under the key, and what a name or
 * username may not contain, with reasons that say what was wrong and where.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nameProblem, usernameKey, usernameProblem } from '../../src/policy/names.js';
import { adminCredentialsProblem } from '../../src/services/identities/default-admin.js';

describe('username keys', () => {
  it('make case, width and compatibility variants of one username collide', () => {
    const groups = [
      ['alice', 'Alice', 'ALICE', 'aLiCe', 'ａｌｉｃｅ', 'ＡＬＩＣＥ'],
      ['straße', 'STRASSE', 'strasse', 'Straße'],
      ['ﬁle-owner', 'file-owner', 'FILE-OWNER'],
      ['οδος', 'ΟΔΟΣ', 'οδοσ'],
      ['café', 'cafe\u0301', 'CAFÉ'],
    ];
    for (const group of groups) {
      const keys = new Set(group.map(usernameKey));
      assert.equal(keys.size, 1, `${group.join(', ')} -> ${[...keys].join(', ')}`);
    }
  });

  it('keep different usernames apart', () => {
    const distinct = ['alice', 'alicf', 'alice1', 'al ice', 'bob', 'cafe', 'café'];
    assert.equal(new Set(distinct.map(usernameKey)).size, distinct.length);
  });

  it('are stable: the key of a key is the key', () => {
    for (const username of ['ＡＬＩＣＥ', 'Straße', 'İstanbul', 'ǅemal', 'ΟΔΟΣ']) assert.equal(usernameKey(usernameKey(username)), usernameKey(username), username);
  });
});

describe('username rules', () => {
  it('accept ordinary usernames, inner spaces and non-Latin letters', () => {
    for (const username of ['alice', 'alice.smith@example.com', 'Zoë Müller', 'пользователь', '用户名字', 'emoji😀user']) {
      assert.equal(usernameProblem(username), undefined, username);
    }
  });

  it('refuse white space at either end, naming it', () => {
    for (const username of ['alice ', ' alice', 'alice\t', '\u00a0alice', 'alice\u3000']) {
      assert.equal(usernameProblem(username), 'must not begin or end with white space', JSON.stringify(username));
    }
  });

  it('refuse controls, bidirectional formatting and invisible characters, saying which and where', () => {
    assert.equal(usernameProblem('ali\u0000ce'), 'must not contain control or bidirectional formatting characters (U+0000 NULL at character 4)');
    assert.equal(usernameProblem('😀li\u202ece'), 'must not contain control or bidirectional formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE at character 4)');
    assert.equal(usernameProblem('al\u200bice'), 'must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 3)');
    assert.equal(usernameProblem('al\u00adice'), 'must not contain invisible formatting characters (U+00AD SOFT HYPHEN at character 3)');
    assert.equal(usernameProblem('al\u0378ice'), 'must not contain unassigned code points (U+0378 at character 3)');
  });

  it('keep the spec length of 4 to 100 characters', () => {
    assert.equal(usernameProblem('abc'), 'must be 4 to 100 characters (got 3)');
    assert.equal(usernameProblem('a'.repeat(101)), 'must be 4 to 100 characters (got 101)');
    assert.equal(usernameProblem('a'.repeat(100)), undefined);
  });

  it('apply to the default admin', () => {
    assert.equal(adminCredentialsProblem({ username: 'admin', password: 'admin-password' }), undefined);
    assert.equal(adminCredentialsProblem({ username: 'admin ', password: 'admin-password' }), 'admin username must not begin or end with white space');
    assert.match(adminCredentialsProblem({ username: 'ad\u202emin', password: 'admin-password' }) ?? '', /^admin username must not contain control or bidirectional/);
  });
});

describe('name rules', () => {
  it('refuse every C0 and C1 control, line separators and each bidirectional formatting character', () => {
    const refused = [
      ...Array.from({ length: 0x20 }, (_, c) => c),
      ...Array.from({ length: 0x21 }, (_, c) => 0x7f + c),
      0x2028, 0x2029, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
    ];
    for (const codePoint of refused) {
      const name = `ops${String.fromCodePoint(codePoint)}team`;
      assert.match(nameProblem(name) ?? '', /^must not contain control or bidirectional formatting characters \(U\+[0-9A-F]{4}( [A-Z -]+)? at character 4\)$/, codePoint.toString(16));
    }
  });

  it('refuse an unpaired surrogate but accept a paired one', () => {
    assert.equal(nameProblem('ops\ud800'), 'must not contain unpaired surrogate code units (U+D800 at character 4)');
    assert.equal(nameProblem('ops 🚀'), undefined);
  });

  it('accept spaces anywhere and joiners in emoji sequences (only usernames refuse those)', () => {
    for (const name of [' padded name ', 'Zoë 🚀 ops', 'family 👨\u200d👩\u200d👧']) assert.equal(nameProblem(name), undefined, name);
  });
});
