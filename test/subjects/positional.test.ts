import { describe, expect, test } from 'vitest';
import { bodyWithArguments } from '../../src/subjects/shell/positional.js';

// bash manual, "Shell Functions" and "Special Parameters"; each reading was compared with what
// bash 5.2 ran for the same call (`f() BODY; f ARGS` with `printf '<%s>'` in place of the program).
describe('a function body read with the arguments of one call', () => {
  test.each([
    ['{ $1 -rf /; }', ['rm'], ['{ rm -rf /; }']],
    ['{ $1; }', ['rm -rf /'], ['{ rm -rf /; }']], // unquoted: split into fields
    ['{ "$1"; }', ['a b'], ['{ "a b"; }']],
    ['{ "$@"; }', ['a b', 'c'], ['{ "a b" "c"; }']],
    ['{ x "$@" y; }', [], ['{ x  y; }']], // "$@" with no arguments is no word
    ['{ "$*"; }', ['a', 'b'], ['{ "a b"; }']],
    ['{ echo $# ${#} ${#1}; }', ['abc', 'd'], ['{ echo 2 2 3; }']],
    ['{ echo $1; }', ['$(id) `id` ~ {a,b} ;'], ['{ echo \\$\\(id\\) \\`id\\` \\~ \\{a,b\\} \\;; }']], // results are not expanded again
    ['{ echo "$1"; }', ['"$(id)"'], ['{ echo "\\"\\$(id)\\""; }']],
    ['{ ls $1; }', ['*.ts'], ['{ ls *.ts; }']], // globbing applies
    ["{ echo '$1' \\$1 $0; }", ['x'], []], // quoted, escaped, not a parameter
    ['{ local c=$1; $c; }', ['rm -rf'], ['{ local c="rm -rf"; $c; }']], // no splitting in an assignment
    ['{ ${1:-rm} ${2-x} ${1:+y}; }', [''], ['{ rm x ; }']],
    ['{ "${@:2}"; }', ['a', 'b', 'c'], ['{ "b" "c"; }']],
    ['{ for a; do $a; done; }', ['x', 'y'], ['{ for a in "x" "y"; do $a; done; }']],
    ['{ shift; $1; }', ['a', 'b'], ['{ shift; a; }', '{ shift; b; }', '{ shift; ; }']], // each shift count, and in text order
  ])('%s with %j', (body, args, readings) => {
    expect(bodyWithArguments(body, args)).toEqual(readings);
  });

  test('more shift counts than readings give up (the caller fails closed)', () => {
    expect(bodyWithArguments('{ shift; $1; }', ['1', '2', '3', '4', '5', '6', '7', '8'])).toBeNull();
  });
});
