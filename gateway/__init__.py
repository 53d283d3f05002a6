"""dynagate: a GraphQL gateway over one DynamoDB table."""
