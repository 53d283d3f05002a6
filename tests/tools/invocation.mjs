// What each tool's script is given, as tests/other_tools.py runs it (ENDPOINT TABLE ACTION
// [JSON]), and a client of DynamoDB Local at that endpoint, set up once for both tools.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

export function invocation() {
  const [endpoint, table, action, given] = process.argv.slice(2);
  const client = new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  return { table, action, args: given ? JSON.parse(given) : {}, client };
}
