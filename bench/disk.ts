/**
 * The machine's durable-write floor: how long one fdatasync of a small append takes on the disk
 * that holds the run's SQLite files. Every notify, pay and render request waits for one (the
 * kit answers only once its write is on disk) and the baseline waits for none, so the ratios
 * depend on this figure as much as on CPU: record it beside them.
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface FsyncFloor {
  samples: number;
  p50_us: number;
  p99_us: number;
}

/** Appends 4 KiB and fdatasyncs it `samples` times in a scratch file under `dir`. */
export function measureFsync(dir: string, samples: number): FsyncFloor {
  const file = join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const page = Buffer.alloc(4096, 1);
  const micros: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      writeSync(fd, page);
      const started = process.hrtime.bigint();
      fdatasyncSync(fd);
      micros.push(Number(process.hrtime.bigint() - started) / 1000);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  micros.sort((a, b) => a - b);
  const at = (q: number): number => micros[Math.min(micros.length - 1, Math.floor(q * micros.length))] ?? NaN;
  return { samples, p50_us: at(0.5), p99_us: at(0.99) };
}
