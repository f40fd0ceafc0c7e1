import { cpus, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  nodeVersion: string;
  platform: string;
  arch: string;
  totalMemoryBytes: number;
  /** 1-minute load average when the run started: a busy machine makes every figure noisier. */
  loadAverage1m: number;
}

export function describeMachine(): MachineInfo {
  const list = cpus();
  return {
    cores: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    nodeVersion: process.version,
    platform: `${platform()} ${release()}`,
    arch: process.arch,
    totalMemoryBytes: totalmem(),
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}
