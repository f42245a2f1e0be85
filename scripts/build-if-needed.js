// Placeholder replaced below once the renderer exists.
