/**
 * Role attributes and the names in `#attribute` roles are unambiguous (issue 40, item 7; decision 0059): the username
 * character rules of decision 0016 and NFC apply, repeats in one list are refused, and every refusal names the
 * character (code point and, for the invisible ones, its Unicode name) and its position. What an entity or a policy
 * already holds is not judged again.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unambiguousTextProblem } from '../../src/policy/names.js';
import { roleAttributeListProblem, roleAttributeProblem, roleListProblem, roleProblem } from '../../src/policy/roles.js';

describe('role attribute rules', () => {
  it('accept plain, accented (in NFC), CJK and emoji attributes, and inner spaces', () => {
    for (const attribute of ['east', 'web-servers', 'café', '東京', 'team 🚀', 'a.b_c:d']) assert.equal(roleAttributeProblem(attribute), undefined, attribute);
  });

  it('refuse a zero-width or other invisible character, naming it and its position', () => {
    assert.equal(roleAttributeProblem('ea\u200bst'), 'must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 3)');
    assert.equal(roleAttributeProblem('east\u2060'), 'must not contain invisible formatting characters (U+2060 WORD JOINER at character 5)');
    assert.equal(roleAttributeProblem('\ufeffeast'), 'must not begin or end with white space (U+FEFF ZERO WIDTH NO-BREAK SPACE at character 1)');
  });

  it('refuse control and bidirectional characters, naming them', () => {
    assert.equal(roleAttributeProblem('ea\tst'), 'must not contain control or bidirectional formatting characters (U+0009 CHARACTER TABULATION at character 3)');
    assert.equal(roleAttributeProblem('ops\u202eevil'), 'must not contain control or bidirectional formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE at character 4)');
  });

  it('refuse white space at either end, naming the character and where it is', () => {
    assert.equal(roleAttributeProblem(' east'), 'must not begin or end with white space (U+0020 SPACE at character 1)');
    assert.equal(roleAttributeProblem('east\u00a0'), 'must not begin or end with white space (U+00A0 NO-BREAK SPACE at character 5)');
    assert.equal(roleAttributeProblem('😀east\u3000'), 'must not begin or end with white space (U+3000 IDEOGRAPHIC SPACE at character 6)');
  });

  it('refuse text not in NFC, saying which characters and what NFC writes there', () => {
    assert.equal(roleAttributeProblem('cafe\u0301'), 'must be in Unicode normalisation form NFC: characters 4 to 5 (U+0065 U+0301) must be sent as U+00E9');
    assert.equal(roleAttributeProblem('\u212bngstrom'), 'must be in Unicode normalisation form NFC: character 1 (U+212B) must be sent as U+00C5');
  });

  it('refuse unassigned code points', () => {
    assert.equal(roleAttributeProblem('a\u0378b'), 'must not contain unassigned code points (U+0378 at character 2)');
  });

  it('refuse a repeat in one list, naming both places, and do not judge again what the entity already holds', () => {
    assert.deepEqual(roleAttributeListProblem(['web', 'ops', 'web']), { index: 2, reason: 'repeats the attribute at index 0' });
    assert.deepEqual(roleAttributeListProblem(['ok', 'bad\u200b']), { index: 1, reason: 'must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 4)' });
    assert.equal(roleAttributeListProblem(['ok', 'old '], ['old ']), undefined);
    assert.deepEqual(roleAttributeListProblem(['old ', 'old '], ['old ']), { index: 1, reason: 'repeats the attribute at index 0' });
  });

  it('count positions in code points, from an offset when the text follows a prefix', () => {
    assert.equal(unambiguousTextProblem('😀\u200b', 1), 'must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 3)');
  });
});

describe('role rules for #attribute roles', () => {
  it('apply the attribute rules to the name after #, counting the # in the position', () => {
    assert.equal(roleProblem('#east\u200b'), 'must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 6)');
    assert.equal(roleProblem('# east'), 'must not begin or end with white space (U+0020 SPACE at character 2)');
    assert.equal(roleProblem('#cafe\u0301'), 'must be in Unicode normalisation form NFC: characters 5 to 6 (U+0065 U+0301) must be sent as U+00E9');
    assert.equal(roleProblem('#café'), undefined);
    assert.equal(roleProblem('#all'), undefined);
    assert.equal(roleProblem('@3bcDxe9k'), undefined);
  });

  it('refuse a repeated role naming the earlier index, and leave roles a policy already holds alone', () => {
    assert.deepEqual(roleListProblem(['#a', '#b', '#a']), { index: 2, reason: 'repeats the role at index 0' });
    assert.equal(roleListProblem(['#a', '#old '], ['#old ']), undefined);
    assert.deepEqual(roleListProblem(['#a', '#new ']), { index: 1, reason: 'must not begin or end with white space (U+0020 SPACE at character 5)' });
  });
});
