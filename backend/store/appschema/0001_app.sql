-- 0001: the desktop app's own state on this device, outside any workspace
-- (docs/protocol/store.md "The app database"). Neither is a secret, so
-- neither is sealed.

-- What the app keeps about a workspace for the UI only, never sent
-- anywhere: display name, local channel names, sidebar order, last read
-- (the app's JSON).
CREATE TABLE workspace_prefs (
    workspace TEXT PRIMARY KEY CHECK (length(workspace) = 64),
    prefs     BLOB NOT NULL
) STRICT;

-- The project folders this device watches, in the order they were added.
CREATE TABLE project_folders (
    pos  INTEGER PRIMARY KEY CHECK (pos >= 0),
    path TEXT    NOT NULL UNIQUE
) STRICT;
