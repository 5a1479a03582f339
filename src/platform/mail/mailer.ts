// Mail delivery: SMTP through nodemailer when SMTP_URL is set, otherwise an outbox table whose
// rows are also printed to the log so a local user can read their codes.
import nodemailer from 'nodemailer'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import { newId } from '../crypto/ids.ts'

export interface Mail {
  to: string
  subject: string
  text: string
  html: string
  /** what the mail is for, e.g. verify_email; kept with outbox rows */
  kind: string
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox'
  send(mail: Mail): Promise<void>
  close(): Promise<void>
}

export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url)
  return {
    kind: 'smtp',
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
    },
    async close() {
      transport.close()
    },
  }
}

export function createOutboxMailer(db: Db, log: Logger): Mailer {
  return {
    kind: 'outbox',
    async send(mail) {
      await db
        .insertInto('mails')
        .values({
          id: newId(),
          toAddress: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          kind: mail.kind,
        })
        .execute()
      // Embedded mode only: there is no real mailbox, so the mail is shown where the user can read it.
      log.info({ mail: { to: mail.to, subject: mail.subject, kind: mail.kind } }, `outbox mail\n${mail.text}`)
    },
    async close() {},
  }
}
