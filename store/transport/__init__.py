"""The connections to DynamoDB, and the data path's own requests, signatures and answers."""
