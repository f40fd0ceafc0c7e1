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
}
