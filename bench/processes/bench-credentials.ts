/** The admin token of the benchmark's platform processes (loopback only, never a real deployment). */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
