/** Whether a server's `versionArray` (buildInfo: [major, minor, patch, …]) is at least `major.minor`. Pure. */
export function versionAtLeast(versionArray: readonly number[], major: number, minor = 0): boolean {
  const [a = 0, b = 0] = versionArray;
  return a > major || (a === major && b >= minor);
}
