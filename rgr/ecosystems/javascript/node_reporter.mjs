// rgr's reporter for node's built-in test runner (node --test): one JSON line per test
// with its file and the names of the suites around it. Suites themselves are skipped.
// A file that failed as a whole (it did not load) carries what its process printed on
// stderr: the only place node says why.
const STDERR_LIMIT = 8192;

export default async function* rgrReporter(source) {
  const stacks = new Map();
  const stderr = new Map();
  for await (const event of source) {
    const data = event.data ?? {};
    const file = data.file ?? '';
    if (event.type === 'test:stderr') {
      const text = (stderr.get(file) ?? '') + String(data.message ?? '');
      stderr.set(file, text.slice(0, STDERR_LIMIT));
      continue;
    }
    if (event.type === 'test:start') {
      const stack = (stacks.get(file) ?? []).slice(0, data.nesting);
      stack[data.nesting] = data.name;
      stacks.set(file, stack);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (data.details?.type === 'suite') continue;
    const ancestors = (stacks.get(file) ?? []).slice(0, data.nesting);
    const error = data.details?.error;
    const cause = error?.cause ?? error;
    yield JSON.stringify({
      file,
      path: [...ancestors, data.name],
      status: event.type === 'test:pass' ? 'passed' : 'failed',
      skip: Boolean(data.skip),
      todo: Boolean(data.todo),
      error: cause ? String(cause?.stack ?? cause) : null,
      stderr: data.name === file && data.nesting === 0 ? (stderr.get(file) ?? null) : null,
    }) + '\n';
  }
}
