# The second workspace's command (see ../../base/file-record.sh for what it must do).
echo "rfs-sync: no command configured for recording $RFS_RECORDING_ID (replace file-record.sh)" >&2
exit 1
