// What rfs mcp takes from the Model Context Protocol's TypeScript SDK, in one place: its
// low-level server (tools given as JSON Schema, made from the command tree), the stdio
// transport, the two requests it answers, and its schema of a JSON-RPC message (framing.ts).
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export {
  CallToolRequestSchema,
  ErrorCode,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
export type { CallToolResult, JSONRPCMessage, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
