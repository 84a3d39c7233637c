/** One mail, as every transport takes it and as the outbox stores it. */
export interface Mail {
  /** The recipient's address. */
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface MailTransport {
  send(mail: Mail): Promise<void>;
  close?(): Promise<void> | void;
}

/** Whatever holds the current transport (an application may replace it at any time). */
export interface MailHolder {
  readonly mail: MailTransport;
}
