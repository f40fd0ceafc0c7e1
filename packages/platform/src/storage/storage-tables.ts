/** Tables of the storage foundation itself: what background work shares between processes. */
export interface StorageTables {
  /**
   * One row per piece of background work that one process at a time does (the retention sweep):
   * who holds it, and until when unless renewed (storage/background-lease.ts).
   */
  background_leases: {
    name: string;
    holder: string;
    lease_until: string;
  };
  /**
   * Sandbox mode only: how far the operator has moved the platform's time forward (one row, id `platform`),
   * read by every process on the database (storage/sandbox-clock.ts).
   */
  sandbox_clock: {
    id: string;
    /** Milliseconds added to the system clock; only ever grows. PostgreSQL's bigint arrives as text. */
    offset_ms: number | string;
    updated_at: string;
  };
}
