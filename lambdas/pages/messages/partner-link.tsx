/** The partner's name, as a link to its website when it has one (the closing page's way back). */
export function PartnerLink(props: { name: string; website?: string | undefined }) {
  if (!props.website) return <>{props.name}</>;
  return (
    <a href={props.website} rel="noopener noreferrer">
      {props.name}
    </a>
  );
}
