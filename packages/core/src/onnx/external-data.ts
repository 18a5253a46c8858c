/**
 * Reads tensor data stored beside a model (TensorProto.data_location = EXTERNAL).
 * A model file is untrusted input: its `location` keys may only name files inside the model's folder,
 * after following symlinks, and every offset/length is checked against the file before reading.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SwitchyardError } from '../errors.js';
import type { ExternalDataReader, ExternalDataRequest } from './decode-tensor.js';

interface OpenFile {
  fd: number;
  size: number;
}

export interface ExternalDataFiles {
  read: ExternalDataReader;
  /** Closes every file opened so far. */
  close(): void;
}

function refuse(req: ExternalDataRequest, why: string): never {
  throw new SwitchyardError('INVALID_MODEL', `tensor '${req.tensor}': external data file '${req.location}' ${why}`);
}

function isInside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * A reader for external data under `baseDir`. `maxBytes` caps the total bytes read for one model,
 * so a model cannot make us read an arbitrarily large file into memory.
 */
export function externalDataFiles(baseDir: string, maxBytes = Number.POSITIVE_INFINITY): ExternalDataFiles {
  const open = new Map<string, OpenFile>();
  let total = 0;
  let realBase: string | undefined;

  function openFile(req: ExternalDataRequest): OpenFile {
    const loc = req.location;
    // Reject absolute paths in either platform's spelling: a model from elsewhere must not name /etc/passwd or C:\….
    if (path.isAbsolute(loc) || path.win32.isAbsolute(loc) || loc.includes('\0')) refuse(req, 'is an absolute or invalid path');
    const resolved = path.resolve(baseDir, loc);
    if (!isInside(path.resolve(baseDir), resolved)) refuse(req, `escapes the model folder '${baseDir}'`);
    const known = open.get(resolved);
    if (known) return known;
    let real: string;
    try {
      realBase ??= fs.realpathSync(baseDir);
      real = fs.realpathSync(resolved);
    } catch {
      refuse(req, `is missing (looked for '${resolved}')`);
    }
    if (!isInside(realBase, real)) refuse(req, `resolves (through a symlink) to '${real}', outside the model folder`);
    let fd: number;
    let size: number;
    try {
      fd = fs.openSync(real, 'r');
      const st = fs.fstatSync(fd);
      if (!st.isFile()) {
        fs.closeSync(fd);
        refuse(req, 'is not a regular file');
      }
      size = st.size;
    } catch (e) {
      if (e instanceof SwitchyardError) throw e;
      refuse(req, `cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    const f = { fd, size };
    open.set(resolved, f);
    return f;
  }

  function read(req: ExternalDataRequest): Uint8Array {
    const f = openFile(req);
    if (req.length !== undefined && req.length !== req.expectedBytes) {
      refuse(req, `gives length ${req.length} but the tensor's type and shape need ${req.expectedBytes} bytes`);
    }
    const n = req.expectedBytes;
    if (req.offset > f.size || n > f.size - req.offset) {
      refuse(req, `is ${f.size} bytes, too short for ${n} bytes at offset ${req.offset}`);
    }
    total += n;
    if (total > maxBytes) refuse(req, `would bring the external data read to ${total} bytes, over maxExternalBytes (${maxBytes})`);
    const out = new Uint8Array(n);
    let done = 0;
    while (done < n) {
      const got = fs.readSync(f.fd, out, done, n - done, req.offset + done);
      if (got === 0) refuse(req, `ended early at byte ${req.offset + done}`);
      done += got;
    }
    return out;
  }

  return {
    read,
    close() {
      for (const f of open.values()) fs.closeSync(f.fd);
      open.clear();
    },
  };
}
