# sync --exec runs this with /bin/sh once per recording: the recording's detail JSON on stdin,
# RFS_RECORDING_ID and RFS_ATTEMPT in the environment. It must print the external record it
# created (a JSON object {"externalId": ...} or a bare id line) and exit 0.
#
# Replace this file with your integration's command (docs/kubernetes.md, "One workspace").
# Until then every recording fails here and stays unsynced: nothing is filed.
echo "rfs-sync: no command configured for recording $RFS_RECORDING_ID (replace file-record.sh)" >&2
exit 1
