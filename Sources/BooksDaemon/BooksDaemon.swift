// BooksDaemon placeholder; replaced by the real module.
