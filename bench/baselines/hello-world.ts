/** Load-time baseline: the smallest possible handler, bundled like the stack's functions. */
export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: '{"hello":"world"}',
});
