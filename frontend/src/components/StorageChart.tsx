import { Area, AreaChart, CartesianGrid, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { StoragePoint } from '../lib/api'
import { formatBytes } from './bytes'

export { formatBytes }

function day(ms: number): string {
  return new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
}

function hour(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
}

/**
 * StorageChart: the workspace's bytes on the relay over time, against the
 * relay's byte budget and its 80 % mark, from the STATS figures the client
 * kept. The sentence under it says the newest figures in words.
 */
export function StorageChart({ points }: { points: StoragePoint[] }) {
  if (points.length === 0) {
    return <p className="muted">No storage figures yet: they are read from the relay at each health run.</p>
  }
  const last = points[points.length - 1]
  const limit = last.limitBytes
  const pct = limit > 0 ? Math.floor((last.logBytes * 100) / limit) : 0
  const top = Math.max(limit, ...points.map((p) => p.logBytes)) * 1.05 || 1
  // Readings within two days are told apart by the hour.
  const tick = last.at - points[0].at < 2 * 24 * 3600 * 1000 ? hour : day
  return (
    <figure className="storage-chart" aria-label="Storage over time">
      <div className="storage-chart-plot" aria-hidden="true">
        <ResponsiveContainer width="100%" height={180}>
          <AreaChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="at" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={tick} />
            <YAxis domain={[0, top]} tickFormatter={formatBytes} width={72} />
            <Tooltip labelFormatter={(v) => new Date(Number(v)).toLocaleString()} formatter={(v) => [formatBytes(Number(v)), 'Used']} />
            <Area type="monotone" dataKey="logBytes" stroke="#3b6ea5" fill="#3b6ea5" fillOpacity={0.25} isAnimationActive={false} />
            {limit > 0 ? <ReferenceLine y={limit} stroke="#b3261e" label={{ value: 'budget', position: 'insideTopRight' }} /> : null}
            {limit > 0 ? (
              <ReferenceLine y={limit * 0.8} stroke="#b07d00" strokeDasharray="4 4" label={{ value: '80 %', position: 'insideBottomLeft' }} />
            ) : null}
          </AreaChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        {limit > 0
          ? `${formatBytes(last.logBytes)} of the relay's ${formatBytes(limit)} budget (${pct} %), ${points.length} reading${points.length === 1 ? '' : 's'} since ${day(points[0].at)}.`
          : `${formatBytes(last.logBytes)} on a relay with no storage budget, ${points.length} reading${points.length === 1 ? '' : 's'} since ${day(points[0].at)}.`}
      </figcaption>
    </figure>
  )
}
