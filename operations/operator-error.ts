/** A refusal the operator can act on: the CLI prints the message and exits non-zero. */
export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}
