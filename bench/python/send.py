#!/usr/bin/env python3
"""Sends N JSON-RPC SendMessage requests one after another over one keep-alive connection to an
agent.py agent, each with a fresh messageId and the given Data Part, and checks that every
answer is a COMPLETED task (instructions-http.sh counts the agent's instructions around it).

    send.py PORT N DATA_JSON
"""

import http.client
import json
import sys
import uuid


def main(port, n, data):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
    for i in range(n):
        body = {"jsonrpc": "2.0", "id": i, "method": "SendMessage", "params": {"message": {
            "messageId": str(uuid.uuid4()), "role": "ROLE_USER",
            "parts": [{"data": data, "mediaType": "application/json"}]}}}
        conn.request("POST", "/", json.dumps(body), headers)
        resp = conn.getresponse()
        answer = json.loads(resp.read())
        state = answer.get("result", {}).get("task", {}).get("status", {}).get("state")
        if resp.status != 200 or state != "TASK_STATE_COMPLETED":
            raise SystemExit(f"request {i}: HTTP {resp.status}, {str(answer)[:300]}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3]))
