'use strict';
// The README's code block runs as written against the server (issue 15): it acts for the
// seat the game waits for, and its rich-error example really meets an error.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { target } = require('./helpers');

function readmeSnippet() {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const block = text.split('```js\n')[1].split('```')[0];
  return block
    .replace("require('./lib')", "require('../lib')")
    .replace("'127.0.0.1:50051'", JSON.stringify(target()))
    .replace(/for await \(const event of seats\[1\]\.watcher\(0\)\) \{[\s\S]*?\n\}/, '');
}

test('the README snippet plays for the seat in to_act and decodes a rich error', async () => {
  const body = readmeSnippet();
  // eslint-disable-next-line no-new-func
  const run = new Function('require', 'assert', `return (async () => {
    ${body}
    assert.ok(view.to_act.length > 0, 'the game waits for a seat');
    assert.equal(info.reason, 'STALE_VERSION');
    assert.match(legal.labels[0], /^起 /);
    client.close();
  })();`);
  await run(require, assert);
});
