/**
 * The one notation for a range of sequence numbers in what svc prints for people: `first..last`,
 * both included (`3..7` is the five records 3, 4, 5, 6 and 7), a single number when they are
 * the same. Positions that are not records (a tail, the next sequence number) are printed as
 * plain numbers and named as such ("tail 8", "continuing at 8").
 */
export function seqRange(first: number, last: number): string {
  return first === last ? `${first}` : `${first}..${last}`;
}
