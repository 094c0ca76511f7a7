import Database from 'better-sqlite3';
import { closeSync, existsSync, linkSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { HarnessError } from '../../base/index.ts';
import { APPLICATION_ID, PRODUCT, SCHEMA_DDL, SCHEMA_VERSION } from './state-schema.ts';

type Db = Database.Database;

const SQLITE_MAGIC = 'SQLite format 3\0';
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens the runtime's state file, creating it when absent. An existing file is checked before
 * SQLite opens it for writing — header first (magic, application id, schema version), then a
 * read-only integrity and identity check — so a corrupt or foreign file is refused with a clear
 * error and left exactly as it was.
 */
export function openStateFile(path: string): Db {
  if (!existsSync(path) || statSync(path).size === 0) createStateFile(path);
  verifyExisting(path);
  const db = new Database(path, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  // WAL + synchronous=FULL: a committed epoch survives SIGKILL and power loss alike.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
}

function createStateFile(path: string): void {
  // Built aside and linked into place, so a crash during creation never leaves a half-made file
  // that the next start would have to tell apart from a foreign one; link() refuses to replace a
  // file another worker created meanwhile, and that file is then verified like any other.
  if (existsSync(path)) rmSync(path);
  const temporary = `${path}.creating-${process.pid}`;
  rmSync(temporary, { force: true });
  const db = new Database(temporary);
  try {
    // Before WAL mode, so both land in the main file's header and survive any crash after this.
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec(SCHEMA_DDL);
    db.prepare('INSERT INTO flow_identity (singleton, product, schema_version, created_at) VALUES (1, ?, ?, ?)').run(
      PRODUCT,
      SCHEMA_VERSION,
      new Date().toISOString(),
    );
  } finally {
    db.close();
  }
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

function verifyExisting(path: string): void {
  const header = readHeader(path);
  const refuse = (code: string, what: string, cause?: unknown) =>
    new HarnessError(
      code,
      `State file ${path} ${what}; it was left untouched. Point the runtime at its own state file (or a new path) — never at another program's database`,
      { cause },
    );
  if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC)
    throw refuse('FLOW_STATE_NOT_SQLITE', 'is not an SQLite database (corrupt or foreign)');
  const applicationId = header.readUInt32BE(68);
  if (applicationId !== APPLICATION_ID) {
    throw refuse(
      'FLOW_STATE_FOREIGN',
      `is an SQLite database of another program (application_id 0x${applicationId.toString(16).padStart(8, '0')}, expected 0x${APPLICATION_ID.toString(16)})`,
    );
  }
  const version = header.readUInt32BE(60);
  if (version !== SCHEMA_VERSION)
    throw refuse(
      'FLOW_STATE_SCHEMA_VERSION',
      `has state schema version ${version}, this runtime reads version ${SCHEMA_VERSION}`,
    );

  // A read-only open of a WAL file may create the -wal/-shm side files; a refused file gets them
  // removed again so the directory is as it was.
  const sideFiles = [`${path}-wal`, `${path}-shm`].filter((file) => !existsSync(file));
  let db: Db | undefined;
  try {
    // Read-only: no checkpoint, no journal-mode change, nothing written to the main file.
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`quick_check: ${String(check)}`);
    const identity = db.prepare('SELECT product, schema_version FROM flow_identity WHERE singleton = 1').get() as
      { product: string; schema_version: number } | undefined;
    if (identity?.product !== PRODUCT || identity.schema_version !== SCHEMA_VERSION)
      throw new Error(`identity row ${JSON.stringify(identity)}`);
  } catch (error) {
    db?.close();
    db = undefined;
    for (const file of sideFiles) rmSync(file, { force: true });
    throw refuse(
      'FLOW_STATE_CORRUPT',
      `carries the flow-state header but its contents are damaged (${error instanceof Error ? error.message : String(error)})`,
      error,
    );
  } finally {
    db?.close();
  }
}

function readHeader(path: string): Buffer {
  const header = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  return header;
}
