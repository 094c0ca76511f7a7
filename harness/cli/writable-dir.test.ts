import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareWritableDir } from './writable-dir.ts';

describe('prepareWritableDir', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'writable-dir-'));
  afterEach(() => {
    for (const entry of readdirSync(scratch)) rmSync(join(scratch, entry), { recursive: true, force: true });
  });

  it('creates missing levels and returns the absolute path, leaving no probe file', () => {
    const dir = prepareWritableDir(join(scratch, 'a', 'b'), '--report-dir');
    expect(dir).toBe(join(scratch, 'a', 'b'));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a path under /proc at once instead of spinning in a recursive mkdir', () => {
    expect(() => prepareWritableDir('/proc/forbidden/reports', '--report-dir')).toThrow(
      /--report-dir \/proc\/forbidden\/reports: cannot create \/proc\/forbidden \(ENOENT\)/,
    );
  });

  it('refuses a path through a regular file', () => {
    writeFileSync(join(scratch, 'file'), '');
    expect(() => prepareWritableDir(join(scratch, 'file', 'reports'), '--report-dir')).toThrow(/is not a directory/);
  });

  it('refuses an existing directory it cannot write, even as root', () => {
    // sysfs takes no new files from anyone.
    expect(() => prepareWritableDir('/sys/kernel', '--report-dir')).toThrow(
      /--report-dir \/sys\/kernel: the directory is not writable/,
    );
    expect(existsSync('/sys/kernel/.write-probe-' + process.pid)).toBe(false);
  });
});
