-- 0002: the profile and the current workspace (docs/protocol/store.md "The
-- app database"), until now the CLI's profile.json and current files. One
-- row each at most; neither is a secret.

-- The name given at `weald init`, offered when creating or joining.
CREATE TABLE profile (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT    NOT NULL
) STRICT;

-- The workspace commands act on when none is named.
CREATE TABLE current_workspace (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    workspace TEXT    NOT NULL CHECK (length(workspace) > 0)
) STRICT;
