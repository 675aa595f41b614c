package codec

// MaxVarint is the largest value the RFC 9420 §2.1.2 variable-length integer
// can hold (30 bits).
const MaxVarint = 1<<30 - 1

// VarintLen returns how many bytes the minimal encoding of n takes (1, 2 or 4),
// or 0 if n exceeds [MaxVarint].
func VarintLen(n uint64) int {
	switch {
	case n < 1<<6:
		return 1
	case n < 1<<14:
		return 2
	case n <= MaxVarint:
		return 4
	}
	return 0
}

// AppendVarint appends the minimal encoding of n to b. n must not exceed
// [MaxVarint]; callers that cannot guarantee it use [Writer.Varint].
func AppendVarint(b []byte, n uint64) []byte {
	switch VarintLen(n) {
	case 1:
		return append(b, byte(n))
	case 2:
		return append(b, 0x40|byte(n>>8), byte(n))
	default:
		return append(b, 0x80|byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

// putVarint writes the encoding of n into dst, which has exactly VarintLen(n) bytes.
func putVarint(dst []byte, n uint64) {
	switch len(dst) {
	case 1:
		dst[0] = byte(n)
	case 2:
		dst[0], dst[1] = 0x40|byte(n>>8), byte(n)
	case 4:
		dst[0], dst[1], dst[2], dst[3] = 0x80|byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	}
}
