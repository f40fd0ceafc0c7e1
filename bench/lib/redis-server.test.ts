import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DURABLE_REDIS_ARGS,
  PRODUCTION_REDIS_ARGS,
  type RedisServer,
  redisPersistence,
  startRedisServer,
} from './redis-server.js';

// The webhook benchmark's peer runs on this server: a real redis-server (Debian's package, which .ci/run installs).
describe('the benchmark peer’s own Redis', () => {
  const dirs: string[] = [];
  let server: RedisServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-redis-'));
    dirs.push(dir);
    return dir;
  };

  it('runs as BullMQ’s production guide asks (AOF, fsync every second), says so when asked, and is gone once stopped', async () => {
    const dir = scratch();
    const started = await startRedisServer(dir, PRODUCTION_REDIS_ARGS);
    if (typeof started === 'string') throw new Error(started);
    server = started;
    expect(await redisPersistence(started.port)).toBe("appendonly yes, appendfsync everysec, save ''");
    // Redis 7 keeps its append-only files in a directory of their own, inside the one it was given.
    expect(existsSync(join(dir, 'appendonlydir'))).toBe(true);

    await started.stop();
    server = null;
    await expect(redisPersistence(started.port)).rejects.toThrow();
  });

  it('the durable variant syncs every write before answering (appendfsync always), the rest as in production', async () => {
    const started = await startRedisServer(scratch(), DURABLE_REDIS_ARGS);
    if (typeof started === 'string') throw new Error(started);
    server = started;
    expect(await redisPersistence(started.port)).toBe("appendonly yes, appendfsync always, save ''");
  });

  it('a server that cannot start is a reason, not a hang', async () => {
    const started = await startRedisServer(scratch(), ['--appendfsync', 'sometimes']);
    expect(started).toMatch(/redis-server exited with code 1/);
  });
});
