"""Calls a retrieval service the way verl's SearchTool does (verl/tools/utils/search_r1_like_utils.py): one POST
with `requests`, JSON headers, `{"queries", "topk", "return_scores": true}`, then each query's passages turned
into the text the model reads ("Doc i (Title: …)" blocks joined by "\n---\n"). Written for Fusebox's tests
from verl's documented behaviour.

Usage: verl_search_client.py URL JSON_QUERY_LIST TOPK
Prints one JSON object: the status, the response body, and the text the model would read.
"""

import json
import sys

import requests


def passages_text(documents):
    blocks = []
    for number, item in enumerate(documents, start=1):
        title, _, text = item["document"]["contents"].partition("\n")
        blocks.append(f"Doc {number} (Title: {title})\n{text}\n\n")
    return "".join(blocks).strip()


def main():
    url, queries, topk = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    response = requests.post(
        url,
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        json={"queries": queries, "topk": topk, "return_scores": True},
        timeout=30,
    )
    body = response.json()
    text = None
    if response.status_code == 200:
        text = "\n---\n".join(passages_text(result) for result in body["result"])
    print(json.dumps({"status": response.status_code, "body": body, "text": text}))


main()
