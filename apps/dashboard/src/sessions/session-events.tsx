import { formatTime } from '~/components/format';

/** What went wrong (or was worth noting) in a session, as timeline items: verl hides every failed call. */
export function SessionEvents({
  events,
}: {
  events: { level: string; route: string; message: string; createdAt: string | Date }[];
}) {
  return events.map((event, index) => (
    <li key={`event-${index}`} className={`event ${event.level}`}>
      <span className={`badge ${event.level === 'error' ? 'error' : ''}`}>{event.level}</span>{' '}
      {formatTime(event.createdAt)} · <code>{event.route}</code> · {event.message}
    </li>
  ));
}
