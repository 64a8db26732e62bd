import { formatTime } from '~/components/format';

/**
 * What went wrong (or was worth noting) in a session, as timeline items: verl hides every failed call. The
 * first page's worth is sent; `more` counts the rest.
 */
export function SessionEvents({
  events,
  more = 0,
}: {
  events: { level: string; route: string; message: string; createdAt: string | Date }[];
  more?: number;
}) {
  return (
    <>
      {events.map((event, index) => (
        <li key={`event-${index}`} className={`event ${event.level}`}>
          <span className={`badge ${event.level === 'error' ? 'error' : ''}`}>{event.level}</span>{' '}
          {formatTime(event.createdAt)} · <code>{event.route}</code> · {event.message}
        </li>
      ))}
      {more > 0 ? (
        <li className="event muted">
          {more} more {more === 1 ? 'event' : 'events'} not shown (FUSEBOX_DASHBOARD_ACTIONS_PAGE)
        </li>
      ) : null}
    </>
  );
}
