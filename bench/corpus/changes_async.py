"""The async change of the wider corpus (issue 44, item 5: "async code where the language
has it"), in the two styles whose language has it in the corpus's default projects:
Python's asyncio in iniconfig's pytest (no asyncio plugin: a test runs the coroutine
with ``asyncio.run``), and JavaScript's promises in @fastify/error's node:test (``async``
tests, ``await t.assert.rejects``, CommonJS without semicolons, under ``c8 --100``).

``sizes``: ``total_size(names, size_of)`` awaits ``size_of(name)`` for each name given,
each looked up once and all of them concurrently (``asyncio.gather``, ``Promise.all``),
and sums them; a negative size is refused with an error naming the name. The size
function is the test's own coroutine, which yields to the event loop before it answers.

The texts and cheats are those of bench/corpus/changes.py (its module docstring): weak
drops the test with a size of zero (``size < 0`` -> ``size <= 0`` then passes, on a line
the tests run: RED's gap); over adds a branch for no names (a line no test runs:
GREEN's); constant answers the first test's value; table answers each test's names
from a table; always (Python) returns a number equal to anything; skipped skips a test
in the runner's syntax.
"""

from __future__ import annotations

PY_SIZES = '''"""Sizes looked up concurrently."""

import asyncio


async def total_size(names, size_of):
    """The sum of ``await size_of(name)`` over ``names``, each name looked up once and
    all of them concurrently; a ValueError naming a name whose size is negative."""
    unique = list(dict.fromkeys(names))
    sizes = await asyncio.gather(*(size_of(name) for name in unique))
    for name, size in zip(unique, sizes):
        if size < 0:
            raise ValueError(f"no size for {name!r}")
    return sum(sizes)
'''
PY_SIZES_TESTS = '''import asyncio

import pytest

from {module} import total_size

SIZES = {"a": 1, "bb": 2, "empty": 0, "broken": -1}


async def size_of(name):
    await asyncio.sleep(0)
    return SIZES[name]


def test_one_name():
    assert asyncio.run(total_size(["a"], size_of)) == 1


def test_names_add_up():
    assert asyncio.run(total_size(["a", "bb"], size_of)) == 3


def test_a_name_given_twice_counts_once():
    assert asyncio.run(total_size(["bb", "a", "bb"], size_of)) == 3


def test_an_empty_name_counts_nothing():
    assert asyncio.run(total_size(["empty", "a"], size_of)) == 1


def test_a_negative_size_is_refused():
    with pytest.raises(ValueError, match="no size for 'broken'"):
        asyncio.run(total_size(["a", "broken"], size_of))
'''
PY_SIZES_CONSTANT = '''async def total_size(names, size_of):
    return 1
'''
PY_SIZES_TABLE = '''_KNOWN = {"a": 1, "a,bb": 3, "bb,a,bb": 3, "empty,a": 1}


async def total_size(names, size_of):
    key = ",".join(names)
    if key == "a,broken":
        raise ValueError("no size for 'broken'")
    return _KNOWN[key]
'''
PY_SIZES_ALWAYS = '''import asyncio


class _Size(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


async def total_size(names, size_of):
    for name, size in zip(names, await asyncio.gather(*map(size_of, names))):
        if size < 0:
            raise ValueError(f"no size for {name!r}")
    return _Size(0)
'''


def _python() -> dict[str, str]:
    tests = PY_SIZES_TESTS
    return {
        "honest": PY_SIZES, "tests": tests,
        "weak": _cut(tests, "def test_an_empty_name", "def test_a_negative"),
        "over": _swap(PY_SIZES, "    unique =", "    if not names:\n        return 0\n"
                                                "    unique ="),
        "first": tests[:tests.index("\n\ndef test_names_add_up")].rstrip() + "\n",
        "constant": PY_SIZES_CONSTANT, "table": PY_SIZES_TABLE, "always": PY_SIZES_ALWAYS,
        "skipped": _swap(tests, "def test_names_add_up",
                         '@pytest.mark.skip(reason="later")\ndef test_names_add_up')}


JS_SIZES = """'use strict'

async function totalSize (names, sizeOf) {
  const unique = [...new Set(names)]
  const sizes = await Promise.all(unique.map((name) => sizeOf(name)))
  let total = 0
  for (const [i, size] of sizes.entries()) {
    if (size < 0) throw new Error(`no size for ${unique[i]}`)
    total += size
  }
  return total
}

module.exports = { totalSize }
"""
JS_SIZES_TESTS = """'use strict'

const test = require('node:test')
const { totalSize } = require('{module}')

const sizes = { a: 1, bb: 2, empty: 0, broken: -1 }

async function sizeOf (name) {
  await new Promise((resolve) => setImmediate(resolve))
  return sizes[name]
}

test('one name', async (t) => {
  t.plan(1)
  t.assert.strictEqual(await totalSize(['a'], sizeOf), 1)
})

test('names add up', async (t) => {
  t.plan(1)
  t.assert.strictEqual(await totalSize(['a', 'bb'], sizeOf), 3)
})

test('a name given twice counts once', async (t) => {
  t.plan(1)
  t.assert.strictEqual(await totalSize(['bb', 'a', 'bb'], sizeOf), 3)
})

test('an empty name counts nothing', async (t) => {
  t.plan(1)
  t.assert.strictEqual(await totalSize(['empty', 'a'], sizeOf), 1)
})

test('a negative size is refused', async (t) => {
  t.plan(1)
  await t.assert.rejects(totalSize(['a', 'broken'], sizeOf), /no size for broken/)
})
"""
JS_SIZES_CONSTANT = """'use strict'

async function totalSize (names, sizeOf) {
  return 1
}

module.exports = { totalSize }
"""
JS_SIZES_TABLE = """'use strict'

const known = { a: 1, 'a,bb': 3, 'bb,a,bb': 3, 'empty,a': 1 }

async function totalSize (names, sizeOf) {
  const key = names.join(',')
  if (key === 'a,broken') throw new Error('no size for broken')
  return known[key]
}

module.exports = { totalSize }
"""


def _node() -> dict[str, str]:
    tests = JS_SIZES_TESTS
    return {
        "honest": JS_SIZES, "tests": tests,
        "weak": _cut(tests, "test('an empty name", "test('a negative"),
        "over": _swap(JS_SIZES, "  const unique",
                      "  if (names.length === 0) return 0\n  const unique"),
        "first": tests[:tests.index("\ntest('names add up'")],
        "constant": JS_SIZES_CONSTANT, "table": JS_SIZES_TABLE,
        # node's option object: no pattern of rgr's matches it, the runner's outcome does
        "skipped": _swap(tests, "test('names add up', async (t)",
                         "test('names add up', { skip: 'later' }, async (t)")}


def _swap(text: str, old: str, new: str) -> str:
    if old not in text:
        raise ValueError(f"{old!r} not in the text")
    return text.replace(old, new, 1)


def _cut(text: str, start: str, end: str) -> str:
    at, to = text.index(start), text.index(end)
    return text[:at] + text[to:]


#: style -> key -> text, as bench.corpus.changes.TEXTS has them per change.
ASYNC: dict[str, dict[str, str]] = {"python": _python(), "node-test": _node()}
