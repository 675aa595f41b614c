package server

import "weald/backend/relay"

var _ Backend = (*relay.Service)(nil)
