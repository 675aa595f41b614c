// Byte counts in words, shared by the storage chart (loaded lazily) and the
// Retention dialog, so the dialog does not pull the chart library in.

/** formatBytes: 1 KB = 1000 bytes, one decimal, as the health check's sentences say it. */
export function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let v = n
  let i = 0
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[i]}`
}
